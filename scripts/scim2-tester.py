"""Runs scim2-tester (PyPI), an RFC 7643/7644 compliance checker, against a SCIM endpoint.

Usage: python scripts/scim2-tester.py <base URL of /scim/v2> <SCIM token>
Prints one JSON line per check (title, status, reason) and a summary line by status.
"""
import json
import sys
from collections import Counter

from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import check_server

base, token = sys.argv[1], sys.argv[2]
client = SyncSCIMClient(Client(base_url=base, headers={"Authorization": f"Bearer {token}"}))
client.discover()
results = check_server(client)
counts = Counter()
for r in results:
    status = r.status.name
    counts[status] += 1
    print(json.dumps({"title": r.title, "status": status, "reason": r.reason, "tags": sorted(getattr(r, "tags", []) or [])}))
print(json.dumps({"summary": dict(counts)}))
