"""The globals of the models' Jinja for sqlfluff (`.sqlfluff`'s `library_path` names this folder): sqlfluff makes
what this module defines globals of the templates it lints, so the models render as gatehouse renders them."""

from gatehouse.pipelines.models.graph import template_globals

globals().update(template_globals())
