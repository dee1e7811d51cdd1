"""Adapters from the drill's cluster state to the tool renderers: the scenario templates'
(nvidia-smi, the Xid log, nccl-tests, squeue/sinfo) and problems/drills/tools' (ibstat,
perfquery, dcgmi diag, Xid 74/79 lines). Each function takes the state and a target and
returns the text the learner sees; nothing here draws at random except from salts the
state holds, so rendering the same state twice prints the same text."""
