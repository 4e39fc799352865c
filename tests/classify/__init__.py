"""Tests of memctl/classify/ (see tests/conftest.py for the shared fixtures)."""
