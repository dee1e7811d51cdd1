"""Hardware and model-architecture reference data, with sources, for problem generators."""
