"""Separation of duties: nobody judges their own work.

A certificate means that someone other than its holder looked at the evidence. So no
one, staff included, decides on their own capstone memo, grants or revokes an extension
on their own attempt, or revokes their own certificate (certificates are issued by the
service from that evidence, never by a person). The rule is this one module: the
services that make those judgements call `refuse_own_work` before they write, and the
pages ask `is_own_work` to offer no form that would be refused.

A regrade is not a judgement of one person's work (it recomputes every answer to a
template by the template's own rule), so it is not covered here.
"""

from __future__ import annotations

from enum import StrEnum

from api_common.service_errors import NotPermitted


class Judgement(StrEnum):
    MEMO_DECISION = "memo_decision"
    EXTENSION = "extension"
    CERTIFICATE_REVOCATION = "certificate_revocation"


REFUSALS = {
    Judgement.MEMO_DECISION: (
        "You cannot decide on your own memo: another instructor of the course decides."
    ),
    Judgement.EXTENSION: (
        "You cannot grant or revoke an extension for yourself: another instructor does."
    ),
    Judgement.CERTIFICATE_REVOCATION: (
        "You cannot revoke your own certificate: another manager of your organisation does."
    ),
}


def is_own_work(*, actor, subject_id: int | None) -> bool:
    """The actor is the person whose work (memo, attempt, certificate) is judged."""
    return actor is not None and actor.pk is not None and actor.pk == subject_id


def refuse_own_work(*, actor, subject_id: int | None, judgement: Judgement) -> None:
    """Raises NotPermitted (403) when the actor would judge their own work."""
    if is_own_work(actor=actor, subject_id=subject_id):
        raise NotPermitted(REFUSALS[judgement])
