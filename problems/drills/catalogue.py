"""The actions a drill offers: Slurm's (actions.py) or Kubernetes' (k8s_actions.py, which
builds on actions.py's Action), chosen by the cluster's scheduler. A module of its own so
that neither of the two imports the other back."""

from __future__ import annotations

from problems.drills import k8s_actions
from problems.drills.actions import Action, slurm_catalogue
from problems.drills.cluster import Cluster


def catalogue(state: Cluster) -> tuple[Action, ...]:
    """Every action a drill over this state offers, in a stable order."""
    if state.scheduler == "kubernetes":
        return k8s_actions.catalogue(state)
    return slurm_catalogue(state)
