"""Reading a game: takes a project folder (YAML, fonts, icons, pnp.toml) and gives a typed Game with
source lines, the project's assets and the settings a build uses. Nothing here renders or writes.
"""
