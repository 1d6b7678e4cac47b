"""Readers of what hosts print, one module per format. Each returns typed tables and refuses what
it cannot read with a ScenarioError naming the file, the line and what was expected."""
