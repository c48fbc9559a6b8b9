"""Cognition: the model calls of the architecture, each grammar-constrained.

Every function here is synchronous and takes the model as an argument; the brain
runs them on the model's worker thread. None of them can be crashed by a model's
answer: each parses a constrained output and has a documented safe fallback.
"""
