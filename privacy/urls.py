"""A person's own data, under /accounts/: download it, delete the account."""

from django.urls import path

from privacy import views

urlpatterns = [
    path("data/", views.my_data, name="account-data"),
    path("data/download/", views.my_data_download, name="account-data-download"),
    path("delete/", views.account_delete, name="account-delete"),
]
