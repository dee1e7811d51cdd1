"""A company's identity provider for the single sign-on tests: django-oauth-toolkit in its
OpenID Connect provider mode (RS256 ID tokens, discovery, JWKS, userinfo), a small
Django project of its own (settings.py), served by serve.py in a subprocess on a free
127.0.0.1 port. Burn-in talks to it over real HTTP, as it would to Okta or Keycloak.

Its clients are Burn-in's registrations; four are faulty on purpose (validator.py), so
the refusal paths meet tokens a real provider made: one names another audience, one is
expired, one names another issuer, one is signed by a key the provider does not publish.

Its employees: alice and bob (verified addresses at acme.example), carol (acme.example,
not verified), mallory (elsewhere.example)."""
