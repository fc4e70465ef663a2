PY := .venv/bin/python
STAMP := .venv/.installed
DEMO_STAMP := .venv/.demo-installed

.PHONY: test demo docs lint bench notebooks clean ci test-newest-jax test-jax-floor

$(PY):
	python3 -m venv .venv
	$(PY) -m pip install -q --upgrade pip

# make test: the package with the test toolchain (which includes the demo extra)
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP) $(DEMO_STAMP)

# make demo: the package and what demo.py imports, nothing more
$(DEMO_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[demo]'
	touch $(DEMO_STAMP)

lint: $(STAMP)
	.venv/bin/ruff check tfjs_grad tests benchmarks docs
	.venv/bin/pyright tfjs_grad
	.venv/bin/pyright tests/typing  # user code, in strict mode: the public types

test: $(STAMP) lint
	$(PY) -m pytest -q -p no:cacheprovider -n auto --nbmake --doctest-modules tfjs_grad tests notebooks

# What CI runs: `make test`, then the suite on the newest JAX (below).
ci:
	bash .ci/run

# The suite on the newest JAX that a Python >= 3.12 on this machine installs (.venv/newest).
test-newest-jax:
	bash .ci/test-newest-jax

# The suite on the lowest jax, jaxlib, optax and orbax-checkpoint pyproject.toml allows.
FLOOR := $(shell sed -nE 's/^ *"(jax|jaxlib|optax|orbax-checkpoint)>=([^"]+)",?$$/\1==\2/p' pyproject.toml)
test-jax-floor:
	bash .ci/test-in-venv .venv/floor python3 $(FLOOR)

demo: $(DEMO_STAMP)
	$(PY) demo.py

# make docs: the reference site (mkdocs.yml) in site/; open site/index.html. --strict: any
# warning (a docstring griffe cannot read, a broken cross-reference) fails the build.
# NO_MKDOCS_2_WARNING silences mkdocs-material's end-of-life banner, not a warning.
DOCS_STAMP := .venv/.docs-installed

$(DOCS_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

# The torch and tfjs-in-Node rows: installed when possible, else skipped with a message.
BENCH_STAMP := .venv/.bench-installed
NODE_STAMP := tests/reference/node_modules/.package-lock.json

$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install -q -e '.[bench]' && touch $@ || echo "bench: torch or keras not installed"

$(NODE_STAMP): tests/reference/package.json tests/reference/package-lock.json
	cd tests/reference && npm install --no-audit --no-fund || echo "bench: npm install failed"

# make bench BENCH_ARGS=--update-readme   (or --quick, --sections mlp, ...)
bench: $(STAMP) $(BENCH_STAMP) $(NODE_STAMP)
	$(PY) benchmarks/train_step.py $(BENCH_ARGS)

notebooks: $(STAMP)
	$(PY) notebooks/execute.py

clean:
	rm -rf .venv site
