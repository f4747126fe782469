"""The ASGI application: what uvicorn serves, live tables and their events streams included (docs/deploy.md)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
application = get_asgi_application()
# Everything loaded so far (Django, the URL conf, the engine) lives as long as the process: kept out of
# the collector's full passes, which otherwise scan it all again, as the pool processes do (config/celery.py).
gc.freeze()
