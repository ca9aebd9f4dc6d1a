package dev.keypool.camel.routes;

import java.lang.reflect.RecordComponent;

import javax.management.openmbean.CompositeData;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenDataException;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;

/**
 * A record as JMX open data, one item per component, so that a JMX console shows a snapshot's figures together, as
 * they were at one moment, and needs none of KeyPool's classes: numbers and booleans as they are, anything else as
 * its text (an absent value as an empty one). Written here because Camel's MBeans are model MBeans, which map no
 * type to open data by themselves.
 */
final class RecordCompositeData {

    private RecordCompositeData() {
    }

    static CompositeData of(Record record) {
        RecordComponent[] components = record.getClass().getRecordComponents();
        String[] names = new String[components.length];
        OpenType<?>[] types = new OpenType<?>[components.length];
        Object[] values = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            names[i] = components[i].getName();
            Object value = value(record, components[i]);
            types[i] = openType(components[i].getType());
            values[i] = types[i] == SimpleType.STRING ? (value == null ? "" : value.toString()) : value;
        }
        try {
            CompositeType type = new CompositeType(record.getClass().getSimpleName(),
                    record.getClass().getSimpleName(), names, names, types);
            return new CompositeDataSupport(type, names, values);
        } catch (OpenDataException e) {
            throw new IllegalStateException("cannot show " + record.getClass().getSimpleName() + " over JMX", e);
        }
    }

    private static Object value(Record record, RecordComponent component) {
        try {
            return component.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + component.getName() + " of " + record.getClass().getSimpleName(), e);
        }
    }

    private static OpenType<?> openType(Class<?> type) {
        if (type == int.class) {
            return SimpleType.INTEGER;
        } else if (type == long.class) {
            return SimpleType.LONG;
        } else if (type == double.class) {
            return SimpleType.DOUBLE;
        } else if (type == boolean.class) {
            return SimpleType.BOOLEAN;
        }
        return SimpleType.STRING;
    }
}
