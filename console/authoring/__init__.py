"""Prompt-set authoring: `serving-console prompts build` regenerates the pinned sets from seeds and vendored
material. Nothing at run time imports this package; the runtime reads the sets through console.core.workload."""
