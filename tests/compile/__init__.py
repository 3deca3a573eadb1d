"""The compile stack's judging suite (issue 8): compiled == eager for single-op graphs, models and scripts."""
