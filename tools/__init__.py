"""Small programs the Makefile runs to prepare a machine; standard library only, since some run before `.venv` exists."""
