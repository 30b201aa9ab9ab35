"""Buttons that more than one cog puts on its messages, with what a click on them does.

discord.py answers a click with the `DynamicItem` class registered for its custom_id's
pattern, and registers again the class of every item in a view it sends. So a button that
the quiz cog and the daily posts both show must be one class, imported from one module
that no extension reloads: here. Cogs register these classes (`add_dynamic_items`) and
build views from them; no cog imports another cog for a button.
"""
