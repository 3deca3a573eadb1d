"""PyTorch's own test files run on glasstorch: the measurement of issue 19 (docs/pytorch-tests.md).

``python -m tools.pytorch_tests run FILE [--torch|--glass]`` runs one upstream file on torch (the baseline) or as
its glasstorch variant; ``python -m tools.pytorch_tests report`` compares the two runs after triage.
"""
