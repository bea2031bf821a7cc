// `import PNCrypt` stays the one import users need: the layers below the messages come with it.
@_exported import PNCryptBase
@_exported import PNCryptJSON
@_exported import PNCryptCore
@_exported import PNCryptCompression
