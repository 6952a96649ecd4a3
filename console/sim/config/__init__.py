"""The twin's configuration floor: the launch_server flags and SGLang's resolution rules (`args`), the modelled
deployment read from its TOML (`deployment`), the `--sim-fault` grammar (`faultspec`) and the adaptive config file
(`adaptive_config`). Imports only the content floor."""
