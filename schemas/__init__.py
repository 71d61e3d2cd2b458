"""The shared language of Fortunate Recall: events, records, queries, results and policy.

Every other package may import `schemas`; `schemas` imports nothing of ours.
"""
