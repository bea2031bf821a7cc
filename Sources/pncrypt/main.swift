import PNCrypt
print("pncrypt")
