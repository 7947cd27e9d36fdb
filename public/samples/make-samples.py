#!/usr/bin/env python3
"""Draws the test helpers' sample premises photos and identity document (docs/test-mode.md,
"Simulate"): pictures made here from shapes and seeded noise, so they are nobody's work and
dedicated to the public domain. Needs Pillow (tests/e2e/requirements.txt). The server reads the
committed JPEGs; run this by hand only when a sample must change. selfie.jpg is a copy of
Tests/HostedImagingTests/Fixtures/portrait.jpg (scikit-image's public-domain astronaut.png).
"""
import os
import random

from PIL import Image, ImageDraw, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 480, 360


def noise(image, rng, amount):
    pixels = image.load()
    for y in range(image.height):
        for x in range(image.width):
            r, g, b = pixels[x, y]
            d = rng.randint(-amount, amount)
            pixels[x, y] = (max(0, min(255, r + d)), max(0, min(255, g + d)), max(0, min(255, b + d)))


def premises(index):
    """A shop or house front: sky, a wall of bricks, windows, a door and a sign, laid out
    differently for each index so no two are near copies (difference hashes far apart)."""
    rng = random.Random(1000 + index)
    image = Image.new("RGB", (W, H))
    draw = ImageDraw.Draw(image)
    sky = 60 + index * 45
    # Light from one side (which side changes with the index): a difference hash reads the
    # brightness between neighbours, so every flat area leans the photo's own way.
    toward = index % 2 == 0
    for x in range(W):
        shade = 150 + int(100 * (x if toward else W - x) / W)
        draw.line([(x, 0), (x, sky)], fill=(shade - 40, shade - 10, min(255, shade + 30)))
    walls = [(196, 120, 90), (225, 205, 160), (170, 180, 190), (210, 150, 120), (150, 170, 130), (230, 190, 140)]
    wall = walls[index % len(walls)]
    left = [0, 120, 40, 200, 0, 80][index % 6]
    right = W - [0, 60, 200, 0, 140, 20][index % 6]
    for x in range(left, right):
        lean = (x - left if (index // 2) % 2 == 0 else right - x) / max(1, right - left)
        draw.line([(x, sky), (x, H)], fill=tuple(int(c * (0.75 + 0.35 * lean)) for c in wall))
    for row, y in enumerate(range(sky, H, 12)):
        draw.line([(left, y), (right, y)], fill=tuple(c - 50 for c in wall))
        for x in range(left + (row % 2) * 14, right, 28):
            draw.line([(x, y), (x, y + 12)], fill=tuple(c - 50 for c in wall))
    columns = 2 + index % 3
    for column in range(columns):
        x0 = left + 30 + column * (right - left - 60) // columns
        x1 = x0 + (right - left - 60) // columns - 30
        for y0 in range(sky + 30, H - 170, 110):
            draw.rectangle([x0, y0, x1, y0 + 70], fill=(40, 60, 90), outline=(250, 250, 245), width=5)
            draw.line([((x0 + x1) // 2, y0), ((x0 + x1) // 2, y0 + 70)], fill=(250, 250, 245), width=3)
    door = left + (index * 97) % max(1, right - left - 110)
    draw.rectangle([door, H - 150, door + 90, H], fill=(80 + 20 * index, 40, 30), outline=(30, 20, 10), width=4)
    draw.rectangle([left + 20, H - 185, right - 20, H - 160], fill=[(200, 30, 40), (20, 90, 170), (240, 200, 20)][index % 3])
    noise(image, rng, 3)
    return image.filter(ImageFilter.SHARPEN)


def document():
    """An identity card that says SPECIMEN: a photo box, lines of 'text' and a stripe."""
    rng = random.Random(7)
    image = Image.new("RGB", (W, 300), (235, 238, 230))
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, W, 60], fill=(30, 80, 140))
    draw.text((20, 20), "SPECIMEN - SAMPLE IDENTITY DOCUMENT - NOT VALID", fill=(255, 255, 255))
    draw.rectangle([30, 90, 200, 300], fill=(190, 190, 200), outline=(60, 60, 60), width=3)
    draw.ellipse([75, 120, 155, 210], fill=(120, 120, 130))
    draw.rectangle([60, 220, 170, 300], fill=(120, 120, 130))
    for line, y in enumerate(range(100, 300, 28)):
        draw.text((230, y), ["NAME  ASHA VERMA", "DOB  15-08-1990", "NO  SPECIMEN-0001", "ISSUED  2026-11-29",
                             "SAMPLE", "TEST MODE", "HOSTED"][line % 7], fill=(20, 20, 20))
        draw.line([(230, y + 18), (230 + rng.randint(200, 380), y + 18)], fill=(120, 120, 120), width=2)
    for x in range(0, W, 6):
        draw.line([(x, 340), (x + 3, 390)], fill=(200, 60, 60) if (x // 6) % 2 else (250, 250, 250), width=2)
    noise(image, rng, 2)
    return image


if __name__ == "__main__":
    for index in range(4):
        premises(index).save(os.path.join(HERE, f"premises-{index + 1}.jpg"), quality=80, optimize=True)
    document().save(os.path.join(HERE, "document.jpg"), quality=80, optimize=True)
