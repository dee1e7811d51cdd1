"""What every API of the service shares, below every app and importing none of them.

The error format and its handler (errors), the exceptions services raise for it
(service_errors), pagination, the JSON parser, strict request fields, representation,
token authentication, the sign-in throttles, hand-written row loading (rows), the request
size limit and the database-unavailable answer. Settings, URLs, WSGI and the Celery app
stay in config/."""
