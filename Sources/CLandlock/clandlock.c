#include "clandlock.h"
