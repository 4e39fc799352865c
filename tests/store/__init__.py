"""Tests of memctl/store/ (see tests/conftest.py for the shared fixtures)."""
