"""`--backend ray` on a local Ray instance (2 CPUs) stores what the local pool stores."""

from __future__ import annotations

import pytest

from tests.e2e.test_eval_sweep import peer, stored, sweep_args
from zork_mcp.app.cli import main

pytestmark = pytest.mark.slow
ray = pytest.importorskip("ray", reason="Ray is the optional extra [ray]")


def test_the_ray_backend_stores_the_same_results_as_the_local_pool(tmp_path, zork_game):
    local, on_ray = tmp_path / "local.sqlite", tmp_path / "ray.sqlite"
    spec = ["--name", "resume", "--model", "local:p1-q0", "--mcp", "on,off", "--episodes", "2",
            "--max-turns", "8", "--game", str(zork_game)]  # fmt: skip
    with peer().serve() as url:
        assert main(sweep_args(url, tmp_path, local, *spec)) == 0
        assert main(sweep_args(url, tmp_path, on_ray, *spec, "--backend", "ray")) == 0
    assert not ray.is_initialized()
    assert len(stored(on_ray)) == 4 and stored(on_ray) == stored(local)
