"""The shared ground, the bottom layer: what every stage stands on and nothing stage-specific.

Owns: configuration (config.py, the only module that reads environment variables, into a frozen
`Config`), the plain records every layer passes up (`Answer`, `Citation`, `SupportScore`, `Chunk`),
locked atomic storage for every state file, the secret keys, the query log and file freshness
stamps. Imports nothing else from pipeline/.
"""
