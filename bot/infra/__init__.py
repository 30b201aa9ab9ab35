"""Infrastructure: settings, logging, safe files, locks, shards, version. No discord, no bot layer above."""
