"""Views of a derivation: each reads the steps and computes nothing of its own."""
