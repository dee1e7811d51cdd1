"""Incident drills over one simulated cluster (issue 39). Pure code: no Django, no database.

- cluster.py: the state a drill runs over (nodes, GPUs, HCAs, Slurm jobs, healthy noise),
  drawn from a seed.
- render/: adapters from that state to the tool renderers (the scenario templates' and
  tools/' ones), so every output agrees with every other.
- actions.py: looks and disruptive acts, each `run(state) -> (output, next state)`.
- faults/: one module per fault kind: plant(state, rng) with its alert, answer and expert
  path; faults/base.py has the fault, location and remedy vocabularies.
- drill.py: the Drill value, grade() and the timeline; registry.py: slugs and
  generate(slug, seed); export.py: the `problems drill --json` line.
"""
