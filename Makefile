PY := .venv/bin/python
STAMP := .venv/.installed

.PHONY: test demo lint bench notebooks clean

$(STAMP): pyproject.toml
	python3 -m venv .venv
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

lint: $(STAMP)
	.venv/bin/ruff check tfjs_grad tests benchmarks
	.venv/bin/pyright tfjs_grad

test: $(STAMP) lint
	$(PY) -m pytest -q -p no:cacheprovider --nbmake --doctest-modules tfjs_grad tests notebooks

demo: $(STAMP)
	$(PY) demo.py

bench: $(STAMP)
	$(PY) benchmarks/train_step.py

notebooks: $(STAMP)
	$(PY) notebooks/execute.py

clean:
	rm -rf .venv
