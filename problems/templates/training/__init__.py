"""Training family: how long a pretraining run takes, and what it costs in GPU-hours."""
