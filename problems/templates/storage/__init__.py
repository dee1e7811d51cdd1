"""Storage family: how fast the storage system must feed a training job, and how much
data that is over a day.
"""
