"""The running bot: the bot class, the composition root that builds it, and reaching Discord."""
