"""Federated ranked track (seed 001): submissions, the common cost simulator, Protocols A/B/C."""
