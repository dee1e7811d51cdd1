"""Networking family: sizing the cluster fabric, such as how many leaf and spine
switches a two-tier network needs for a given number of endpoints.
"""
