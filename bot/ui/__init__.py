"""The Discord user interface: embeds, replies, buttons, options, the command tree, the poster."""
