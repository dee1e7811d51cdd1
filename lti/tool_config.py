"""A read-only tool configuration for pylti1p3.

django-lti's DjangoToolConfig *creates* a deployment row for any unknown deployment id it
is asked about, so a forged launch from a registered issuer would write to the database
before it is refused. This subclass only reads: unknown or inactive deployments are not
found, and a login without client_id resolves only when the issuer has exactly one
active registration."""

from __future__ import annotations

from lti_tool.models import LtiDeployment, LtiRegistration
from lti_tool.utils import DjangoToolConfig
from pylti1p3.deployment import Deployment


class ReadOnlyToolConfig(DjangoToolConfig):
    def find_registration_by_params(self, iss, client_id, *args, **kwargs):
        if not isinstance(iss, str) or (client_id is not None and not isinstance(client_id, str)):
            return None
        found = LtiRegistration.objects.active().filter(issuer=iss)
        if client_id is not None:
            found = found.filter(client_id=client_id)
        found = list(found[:2])
        if len(found) != 1:
            return None
        self.registration = found[0]
        return self.registration.to_registration()

    def find_registration_by_issuer(self, iss, *args, **kwargs):
        return self.find_registration_by_params(iss, None)

    def _deployment(self, **lookups):
        if not isinstance(lookups.get("deployment_id"), str) or self.registration is None:
            return None
        self.deployment = (
            LtiDeployment.objects.active().filter(registration=self.registration, **lookups).first()
        )
        if self.deployment is None:
            return None
        return Deployment().set_deployment_id(self.deployment.deployment_id)

    def find_deployment(self, iss, deployment_id):
        return self._deployment(deployment_id=deployment_id)

    def find_deployment_by_params(self, iss, deployment_id, client_id, *args, **kwargs):
        return self._deployment(deployment_id=deployment_id)
