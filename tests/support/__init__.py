"""Helpers shared by the test modules (not test modules): import them as ``support.<name>``."""
