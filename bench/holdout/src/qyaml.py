"""Double-quoted YAML, as a tool renders records whose values may hold any character:
every string double-quoted, long lines continued the way PyYAML continues them; numbers and
booleans plain."""

import yaml


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(
    str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style='"'))


def qdump(obj) -> str:
    return yaml.dump(obj, Dumper=_Dumper, sort_keys=False, allow_unicode=False,
                     width=80).rstrip("\n")
