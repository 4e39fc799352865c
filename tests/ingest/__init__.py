"""Tests of memctl/ingest/ (see tests/conftest.py for the shared fixtures)."""
