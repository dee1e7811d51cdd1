"""What the schema tells a client author about each certification operation. Kept apart
from the views so they stay thin; tests/certify/api holds the statuses to the views."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiTypes

TRACKS = (
    "Every certification track: the rotation it admits to, the lessons whose skills must "
    "be mastered and at what P(mastered), whether an approved capstone memo is required, "
    "how long a certificate stays valid, and the certification exam (its quiz id, time "
    "limit, pass mark and cooldown between attempts). Any signed-in user."
)
PROGRESS = (
    "Your own standing on one track: whether you are certified now and until when, why "
    "(not), each requirement (mastery, exam, memo) met or missing with its detail, each "
    "skill's estimate, the next step, and your latest certificate of the track (null if "
    "none). The requirements are those of the next certificate: the one issued spent "
    "its exam pass, so while certified `exam` reads unmet until a renewal exam is "
    "passed. 404 for an unknown track slug."
)
CERTIFICATES = (
    "Your certificates, newest first, every state (valid, expired, revoked), each with the "
    "evidence it was issued on. Only the holder's own: a manager reads a member's "
    "standing through the team readiness and check operations."
)
VERIFY = (
    "Public verification of a certificate by its id (no credentials needed; a token sent "
    "is ignored): whether it is valid, expired or revoked now, the track, the holder's "
    "display name and the dates. Nothing private: no evidence, scores, email or "
    "revocation reason. An unknown id is a 404."
)
REVOKE = (
    "Revoke a certificate, giving the reason (the holder reads it). A manager of the "
    "holder's organisation, or staff, but never the holder: nobody revokes their own "
    "certificate, whatever their role (403); anyone else gets 404, as for an unknown "
    "id. Revocation is final: revoking a revoked certificate is a 409. Answers the "
    "certificate as revoked."
)
TEAMS = (
    "The teams of the organisations you manage (staff: every team), each with the "
    "tracks its rotation asks for (empty: every track). Empty for a non-manager."
)
READINESS = (
    "A team's readiness matrix: one row per member (by username), one cell per track of "
    "the team (every track when the team names none), each saying whether the member is "
    "certified now, until when, why (not), the latest certificate's id and the keys of "
    "the requirements still missing. For managers of the team's organisation and staff; "
    "404 for anyone else, as for an unknown team."
)
CHECK = (
    "**For on-call tooling**: may this person take this track's rotation now? "
    "`certified` is true exactly when they hold a valid (unexpired, unrevoked) "
    "certificate of the track; `until` is when it expires (re-check before then, null "
    "when not certified); `reason` says why in words: the expiry, or what ended the last "
    "certificate (expired, revoked with the manager's reason) and what is still missing. "
    "`status` is the same answer as an enum.\n\n"
    "Who may ask: anyone about themselves; a manager about the members of the "
    "organisations they manage; staff about anyone. Anyone else gets 404, exactly as for "
    "an unknown username, so the call never reveals who exists. An unknown track is a "
    "404 too. A missing or empty `user` or `track` is a 400 whose `attr` names it."
)

C403_REVOKE = (
    "Only a manager of the holder's organisation (or staff) revokes, and never the holder."
)
C409_REVOKE = "The certificate is already revoked; revocation is final."
C404_CHECK = (
    "No such track, or no such person you may ask about (an unknown username and a "
    "person outside your organisations answer the same)."
)

TRACK_SLUG = OpenApiParameter(
    "slug", OpenApiTypes.STR, OpenApiParameter.PATH, description="The track's slug."
)
CERTIFICATE_ID = OpenApiParameter(
    "id",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="The certificate's id: 22 URL-safe characters.",
    pattern=r"^[A-Za-z0-9_-]{1,32}$",
)
TEAM_ID = OpenApiParameter(
    "id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The team's id."
)
PSYCHOMETRICS = (
    "Staff only (anyone else: 404): the track's psychometrics report. Per template of its "
    "exam's pools (incident drills are scored by their own rubric, not as items): the 2PL "
    "parameters of the latest calibration with standard errors and sample size, their "
    "history over every calibration, and the share of the exam's attempts that drew it. "
    "Per track: the cut (the latest standard setting, else theta 0.5, said in "
    "`cut_source`), the SEM at the cut, Rudner's expected accuracy and consistency of a "
    "form of the calibrated items, the length a form needs for an accuracy of 0.9, and, "
    "over the attempts decided on ability, the marginal reliability and observed accuracy "
    "and consistency. A figure not computable yet is null."
)
