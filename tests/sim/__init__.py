"""Tests of the engine twin (console/sim)."""
