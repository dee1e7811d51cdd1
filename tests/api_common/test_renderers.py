"""Once the API's renderer has written a body, what the body was written from goes when
the response does, by reference counting: not left in a cycle for the collector's
full passes (api_common/renderers.py)."""

from __future__ import annotations

import gc
import weakref

import pytest
from rest_framework import renderers as drf_renderers
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from api_common.renderers import JSONRenderer


class Thing:
    def __init__(self, n: int):
        self.n = n


class ThingSerializer(serializers.Serializer):
    n = serializers.IntegerField()


def _serve(renderer, paged: bool):
    """A view's rendered response, and weak references to the instance it was written
    from and to the response itself."""
    seen = {}

    class ThingView(APIView):
        authentication_classes = []
        permission_classes = []
        renderer_classes = [renderer]

        def get(self, request):
            things = [Thing(7), Thing(8)]
            seen["instance"] = weakref.ref(things[0])
            if paged:  # a page wraps the serializer's list, as the API's pagination does
                data = {"count": 2, "results": ThingSerializer(things, many=True).data}
            else:
                data = ThingSerializer(things[0]).data
            return Response(data)

    response = ThingView.as_view()(APIRequestFactory().get("/things/"))
    response.render()
    seen["response"] = weakref.ref(response)
    return response, seen


@pytest.fixture
def no_collector():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


@pytest.mark.parametrize("paged", [False, True])
def test_a_rendered_response_frees_its_data_and_instance_by_reference_counting(no_collector, paged):
    response, seen = _serve(JSONRenderer, paged)
    assert response.status_code == 200
    assert response.data  # still readable after rendering (test clients read it)
    del response
    assert seen["instance"]() is None
    assert seen["response"]() is None


@pytest.mark.parametrize("paged", [False, True])
def test_drf_own_renderer_leaves_them_to_the_collector(no_collector, paged):
    """The cycles the renderer cuts (what the test above would catch if it stopped)."""
    response, seen = _serve(drf_renderers.JSONRenderer, paged)
    del response
    assert seen["instance"]() is not None
    assert seen["response"]() is not None
    gc.collect()
    assert seen["instance"]() is None


@pytest.mark.parametrize("paged", [False, True])
def test_the_body_is_drf_own(paged):
    ours, _ = _serve(JSONRenderer, paged)
    theirs, _ = _serve(drf_renderers.JSONRenderer, paged)
    assert ours.content == theirs.content
    assert ours["Content-Type"] == theirs["Content-Type"] == "application/json"


def test_the_api_renders_with_it():
    assert api_settings.DEFAULT_RENDERER_CLASSES[0] is JSONRenderer
    assert drf_renderers.BrowsableAPIRenderer in api_settings.DEFAULT_RENDERER_CLASSES
