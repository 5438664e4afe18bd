"""Credentials: finding them in text and arguments, and masking them in every output."""
