"""Kernels per backend: ``kernels/<backend>/<family>.py``."""
