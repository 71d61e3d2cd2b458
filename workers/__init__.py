"""Domain logic (lifecycle rules, extraction, query) and the adapters behind its ports."""
