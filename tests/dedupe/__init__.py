"""Tests of memctl/dedupe/ (see tests/conftest.py for the shared fixtures)."""
