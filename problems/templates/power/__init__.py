"""Power family: how many servers a rack's power budget holds, and what a facility
draws in a year and what that costs.
"""
