"""The question bank as content: reading, checking and importing question and template files."""
