"""Capacity judgement family: turning what a product knows about its users into the
demand a serving fleet sees, and checking a plan against what was measured."""
