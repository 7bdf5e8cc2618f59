# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
