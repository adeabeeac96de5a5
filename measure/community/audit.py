"""The inbox audit log of maintainer decisions: the project's one hash-chained log
(``analytics.core.hashlog``, shared with the FL review record) under its inbox name."""

from analytics.core import atomic as atomic  # tests interrupt its writes
from analytics.core.hashlog import *  # noqa: F403  (the log's whole public interface)
from analytics.core.hashlog import AuditError as AuditError
from analytics.core.hashlog import append as append
from analytics.core.hashlog import read as read
from analytics.core.hashlog import verify as verify
