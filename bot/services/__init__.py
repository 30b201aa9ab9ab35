"""Services: one call per user action, joining the quiz rules to storage. No discord here."""
