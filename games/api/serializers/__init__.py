"""Input and output shapes of the API. Outputs are rendered through these serializers, so the
OpenAPI schema generated from them is exactly what clients receive.

One module per resource (`matches`, `play`, `feed`, `accounts`, `problems`) over the shared
fields of `fields`; import each serializer from its own module, as nothing is re-exported here.
"""
