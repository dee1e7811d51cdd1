"""The provider's claims, and the faulty clients' tokens.

Claims: sub, email, email_verified (false for members of the "unverified" group),
name, given_name, family_name, preferred_username, in the ID token and from userinfo.
A client named for a fault gets ID tokens with it, signed like any other, but for
"foreign-key", whose tokens are signed by a key the provider does not publish (under the
published key's kid): what a token forged or swapped on the way looks like."""

from __future__ import annotations

import base64
import time

from jwcrypto import jwk, jwt
from oauth2_provider.oauth2_validators import OAuth2Validator

UNVERIFIED = "unverified"
IMPOSTOR_ISSUER = "https://impostor.example"
# A key the provider does not publish: a token it signs claims the published key's kid.
FOREIGN_KEY = jwk.JWK.generate(kty="RSA", size=2048)


class CompanyValidator(OAuth2Validator):
    oidc_claim_scope = {
        **OAuth2Validator.oidc_claim_scope,
        "email": "email",
        "email_verified": "email",
        "name": "profile",
        "given_name": "profile",
        "family_name": "profile",
        "preferred_username": "profile",
    }

    def get_additional_claims(self, request):
        user = request.user
        return {
            "email": user.email,
            "email_verified": not user.groups.filter(name=UNVERIFIED).exists(),
            "name": f"{user.first_name} {user.last_name}".strip(),
            "given_name": user.first_name,
            "family_name": user.last_name,
            "preferred_username": user.username,
        }

    def get_id_token_dictionary(self, token, token_handler, request):
        claims, expiration_time = super().get_id_token_dictionary(token, token_handler, request)
        fault = request.client.name
        if fault == "wrong-audience":
            claims["aud"] = "a-client-of-another-service"
        elif fault == "expired":
            claims["exp"] = int(time.time()) - 3600
            claims["iat"] = int(time.time()) - 7200
        elif fault == "wrong-issuer":
            claims["iss"] = IMPOSTOR_ISSUER
        return claims, expiration_time

    def finalize_id_token(self, id_token, token, token_handler, request):
        signed = super().finalize_id_token(id_token, token, token_handler, request)
        if request.client.name != "foreign-key":
            return signed
        header, claims, _signature = signed.split(".")
        forged = jwt.JWT(header=_decoded(header), claims=_decoded(claims))
        forged.make_signed_token(FOREIGN_KEY)
        return forged.serialize()


def _decoded(segment: str) -> str:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)).decode()
