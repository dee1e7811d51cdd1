"""Every account that existed before sign-up counts as confirmed (it has no SignUp row),
and its address becomes allauth's, verified and primary, so it signs in by email,
resets its password by email and shows on its email page without a row being added on
a GET. An address two accounts share is left to staff: only one may hold it verified."""

from django.db import migrations
from django.db.models.functions import Lower


def adopt_addresses(apps, schema_editor):
    User = apps.get_model("auth", "User")
    EmailAddress = apps.get_model("account", "EmailAddress")
    has_row = set(EmailAddress.objects.values_list("user_id", flat=True))
    held = set(EmailAddress.objects.filter(verified=True).values_list(Lower("email"), flat=True))
    users = list(User.objects.exclude(email="").values_list("pk", "email"))
    counts: dict[str, int] = {}
    for _pk, email in users:
        counts[email.strip().lower()] = counts.get(email.strip().lower(), 0) + 1
    rows = []
    for pk, email in users:
        email = email.strip().lower()
        if pk in has_row or email in held or counts[email] > 1:
            continue
        rows.append(EmailAddress(user_id=pk, email=email, verified=True, primary=True))
    EmailAddress.objects.bulk_create(rows, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_sign_ups"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [migrations.RunPython(adopt_addresses, migrations.RunPython.noop)]
