"""The process's one TLS context for the LLM clients: built once, and still strict."""

from __future__ import annotations

import ssl
from concurrent.futures import ThreadPoolExecutor

from zork_mcp.builders.llm import tls_context


def test_every_episode_thread_shares_one_context_that_checks_certificates_and_names() -> None:
    with ThreadPoolExecutor(4) as pool:  # a sweep worker's episodes, each on its thread
        contexts = set(pool.map(lambda _: id(tls_context()), range(8)))
    context = tls_context()
    assert contexts == {id(context)}
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.minimum_version >= ssl.TLSVersion.TLSv1_2
    assert context.cert_store_stats()["x509_ca"] > 100  # certifi's bundle, not an empty store
