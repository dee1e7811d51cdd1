"""Psychometrics for certification: pure numpy, no Django, no database.

The model is the two-parameter logistic (2PL) on the logistic scale, with no 1.7 factor:
a learner of ability theta answers a template right with probability

    P(theta) = 1 / (1 + exp(-a (theta - b)))

where b (difficulty) is the ability at which the chance is even and a (discrimination)
how steeply the chance rises there. Abilities are on the scale of the calibration
population: theta ~ N(0, 1), so b = 0.5 is a template half of them would more likely
fail than pass, half a standard deviation above average.

Each template is one item; each learner gives at most one right-or-wrong answer to it
(certify.calibration_responses: the honest first try at its first part in practice and
homework, the counted answer of an ended exam or certification). Incident drills are
scored by their own rubric and are not items.

- twopl.py: the response function, item and test information, the test characteristic
  curve;
- calibrate.py: marginal maximum likelihood by EM over a quadrature of N(0, 1), for
  sparse data (each learner answers a few templates), with standard errors;
- scoring.py: an ability estimate per attempt (EAP with its posterior SD; MLE with
  1 / sqrt(information) where the pattern is mixed);
- variants.py: whether a template's variants differ in difficulty, and the features a
  variant's parameters give (flagged templates leave the certification pools:
  certify.pools);
- decisions.py: reliability, the SEM at a cut and Rudner's classification accuracy and
  consistency, from scored attempts or from a form's items alone over theta ~ N(0, 1).
"""
